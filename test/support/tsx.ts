// How the tests start a process of their own TypeScript (the CLI from source, a fixture worker):
// node with tsx's ESM loader only. Everything the tests run is ES modules; tsx's main entry
// (`--import tsx`) also installs its CommonJS hooks, which nothing here uses and which cost about
// 0.4 s of CPU per process start (Node 24, measured on the 2-core CI machine): paid by each of
// the ~180 test files (scripts/run-tests.mjs passes the same) and by every CLI or fixture a test
// spawns. The tests of the documented commands (test/examples) keep `--import tsx`, as written.
export const TSX = ['--import', 'tsx/esm'] as const;
