// The one HTML page of the dashboard. Pages are routed in the browser by the URL's hash
// (#/jobs, #/job/<id>, #/machines), so the dashboard's paths never collide with the API's
// (/jobs, /machines) although both are served at the same root.

/** Where the dashboard's own files and JSON routes live, under the server's root. */
export const ASSETS_PATH = '/dashboard/assets';
export const DASHBOARD_API = '/dashboard/api';

export function shellHtml(title: string): string {
  const safeTitle = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${safeTitle}</title>
<link rel="icon" href="${ASSETS_PATH}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS_PATH}/styles.css">
<script type="module" src="${ASSETS_PATH}/app.js"></script>
</head>
<body>
<header class="top">
  <a class="brand" href="#/">Machinist</a>
  <nav aria-label="Pages">
    <a href="#/">Queues</a>
    <a href="#/jobs">Jobs</a>
    <a href="#/find">Find</a>
    <a href="#/machines">Machines</a>
    <a href="#/schedules">Schedules</a>
    <a href="#/workers">Workers</a>
  </nav>
  <span class="spacer"></span>
  <span id="live" class="live" role="status" aria-live="polite">not following</span>
  <button id="token" type="button" class="ghost" title="Bearer token for the API">Token</button>
  <button id="theme" type="button" class="ghost" aria-label="Toggle light or dark theme">Theme</button>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
<noscript>The dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}
