// Light and dark: the system's preference unless the toggle chose one (kept in localStorage).

import { syncChartTheme } from './chart.js';

const KEY = 'machinist.theme';

export function initTheme(button: HTMLElement | null): void {
  const saved = localStorage.getItem(KEY);
  if (saved === 'light' || saved === 'dark') document.documentElement.dataset.theme = saved;
  button?.addEventListener('click', () => {
    const current =
      document.documentElement.dataset.theme ??
      (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
    const next = current === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    localStorage.setItem(KEY, next);
    syncChartTheme();
  });
}
