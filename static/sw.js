// skblab's service worker: after the first visit the app loads and runs with the network cut,
// and a new version never breaks a tab still open on the old one.
//
// On install it caches every file of the build (the list and the cache name are written into
// this file by scripts/sw-manifest.mjs, a Trunk post_build hook), the sweep worker's files too,
// so a sweep started offline still runs. Each file is fetched past the HTTP cache and kept only
// if its type is the one its name calls for (see `cacheable`): if one is not, the install fails
// and the previous version's worker stays in charge. Pages (navigations) go to the network
// first and fall back to the cached index.html. A file whose name carries a content hash
// (`skblab-web-<10 to 16 hex>.js`) is served from the cache first — this version's cache, then an
// older version's (an old hashed name is only ever asked for by a tab of that version). A file
// whose name stays the same from build to build (the home app's and the sweep worker's files)
// goes to the network first (the server revalidates it cheaply) and falls back to the cache
// offline, so a new page never runs an old version's copy. What the network answers is kept
// only if it is `cacheable` (never index.html or an error page under a script's name).
//
// Updates: a new version's worker takes over at once (skipWaiting, clients.claim). A tab still
// running the old version learns it from its `controllerchange` event: index.html's loader
// (Trunk.toml) asks the new worker its version ("skblab-version?", answered with the cache
// name), and if it is not the page's own (`<meta name="skblab-build">`), shows "a new version
// is ready" and reloads the tab on its next navigation, so it never asks for files the server
// no longer has. Until then the old tab may still load its own hashed files (the full app after
// the home page): the previous version's cache is kept when a new one activates, and only
// older ones are deleted. (An old tab that starts its first sweep before navigating gets the
// new version's sweep worker, whose names are not hashed; the banner asks it to reload.)
const FILES = []; // SKBLAB_PRECACHE_FILES
const CACHE = 'skblab-dev'; // SKBLAB_CACHE_NAME

/** The content type a response must have to be kept under `request`'s URL (null: any but HTML). */
function expectedType(request) {
  const { pathname } = new URL(request.url);
  const ext = (pathname.match(/\.[a-z0-9]+$/i) || [''])[0].toLowerCase();
  const byExt = {
    '.js': /javascript/, '.mjs': /javascript/, '.wasm': /^application\/wasm/, '.css': /^text\/css/,
    '.html': /^text\/html/, '.svg': /^image\/svg\+xml/, '.json': /json/, '.png': /^image\/png/,
    '.ico': /^image\//, '.woff2': /^font\/woff2/,
  };
  if (byExt[ext]) return byExt[ext];
  if (pathname.endsWith('/')) return /^text\/html/;
  switch (request.destination) {
    case 'script': case 'worker': case 'sharedworker': case 'serviceworker': return /javascript/;
    case 'style': return /^text\/css/;
    case 'image': return /^image\//;
    case 'document': return /^text\/html/;
    default: return null;
  }
}

/** Whether `response` may be kept under `request`: a full same-origin 200 of the expected type. */
function cacheable(request, response) {
  if (!response || response.status !== 200 || response.type !== 'basic' || response.redirected) return false;
  const type = (response.headers.get('content-type') || '').toLowerCase();
  const want = expectedType(request);
  return want ? want.test(type) : !/^text\/html/.test(type);
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(FILES.map(async (file) => {
      const request = new Request(file, { cache: 'no-cache' });
      const response = await fetch(request);
      if (!cacheable(request, response)) {
        throw new Error(`sw: ${file} answered ${response.status} ${response.headers.get('content-type')}: not cached`);
      }
      await cache.put(file, response);
    }));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    // caches.keys() lists caches in creation order: the last one before this version's is the
    // previous version's, kept for the tabs still on it; older ones go.
    const ours = (await caches.keys()).filter((k) => k.startsWith('skblab-'));
    const others = ours.filter((k) => k !== CACHE);
    const keep = others.slice(-1);
    await Promise.all(others.filter((k) => !keep.includes(k)).map((k) => caches.delete(k)));
    await self.clients.claim();
  })());
});

/** The cached answer for `request`: this version's, else the newest older version's. */
async function cached(request) {
  const own = await caches.match(request, { cacheName: CACHE });
  if (own) return own;
  const older = (await caches.keys()).filter((k) => k.startsWith('skblab-') && k !== CACHE).reverse();
  for (const name of older) {
    const hit = await caches.match(request, { cacheName: name });
    if (hit) return hit;
  }
  return undefined;
}

self.addEventListener('message', (event) => {
  if (event.data === 'skblab-version?' && event.ports[0]) event.ports[0].postMessage(CACHE);
});

/** Trunk's content-hashed file names: `skblab-web-0123456789abcdef.js`, `…_bg.wasm`. */
const HASHED = /-[0-9a-f]{10,16}(_bg)?\.[a-z0-9]+$/;

/** The network's answer, kept in this version's cache if `cacheable`; null offline. */
async function fromNetwork(event) {
  let response;
  try {
    response = await fetch(event.request);
  } catch {
    return null;
  }
  if (cacheable(event.request, response)) {
    const copy = response.clone();
    event.waitUntil(caches.open(CACHE).then((cache) => cache.put(event.request, copy)).catch(() => {}));
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith((async () => {
      try {
        return await fetch(request);
      } catch {
        return (await caches.match('./index.html', { cacheName: CACHE })) || (await cached(new Request('./index.html'))) || Response.error();
      }
    })());
    return;
  }
  const hashed = HASHED.test(new URL(request.url).pathname);
  event.respondWith((async () => {
    // Offline and not cached: the page sees a failed request, this worker logs nothing.
    if (hashed) return (await cached(request)) || (await fromNetwork(event)) || Response.error();
    const response = await fromNetwork(event);
    // A 404 or 5xx online is the server's answer, passed on; offline, the cached copy.
    return response || (await cached(request)) || Response.error();
  })());
});
