// A service worker that receives every push and shows nothing: Safari counts such pushes against the subscription and
// revokes it after too many (docs/web-push.md). Herald's devices apply the same rule.

self.addEventListener('push', (event) => {
    const text = event.data ? event.data.text() : '';
    console.log('received a push of', text.length, 'characters and showed nothing');
});
