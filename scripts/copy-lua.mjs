// The build copies the Lua scripts beside the compiled store, which loads them at run time.
import { cpSync } from 'node:fs';
cpSync('src/store/redis/lua', 'dist/src/store/redis/lua', { recursive: true });
