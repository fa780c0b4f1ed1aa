// The server's tsconfig includes all of src/, this folder too, with Node's types only: these give
// it the browser's. (This folder's own tsconfig.json, used by the root "typecheck" and by ESLint,
// checks it with DOM types and without Node's.)
/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
