// The build copies the Lua scripts beside the compiled store, which loads them at run time, and
// the dashboard's static files (styles) beside the compiled dashboard, which serves them.
import { cpSync } from 'node:fs';
cpSync('src/store/redis/lua', 'dist/src/store/redis/lua', { recursive: true });
cpSync('src/dashboard/static', 'dist/src/dashboard/static', { recursive: true });
