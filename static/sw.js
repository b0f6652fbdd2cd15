// skblab's service worker: after the first visit the app loads and runs with the network cut.
//
// On install it caches every file of the build (the list and the cache name are written into
// this file by scripts/sw-manifest.mjs, a Trunk post_build hook), the sweep worker's files too,
// so a sweep started offline still runs. Pages (navigations) go to the network first and fall
// back to the cached index.html; every other same-origin GET is served from the cache first
// (file names carry content hashes; the unhashed worker files change with the cache name).
// A new build gets a new cache name; the old cache is deleted when the new worker activates.
const FILES = []; // SKBLAB_PRECACHE_FILES
const CACHE = 'skblab-dev'; // SKBLAB_CACHE_NAME

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('skblab-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request).catch(() => caches.match('./index.html', { cacheName: CACHE }).then((r) => r || Response.error())),
    );
    return;
  }
  event.respondWith(
    caches.match(request, { cacheName: CACHE }).then((hit) => hit || fetch(request).then((response) => {
      if (response.ok) {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(request, copy));
      }
      return response;
    })),
  );
});
