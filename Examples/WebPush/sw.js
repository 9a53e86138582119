// A web app's service worker, as a site writes it: a push's JSON becomes a notification; a click opens its URL.
//
// The push is JSON such as {"title": "Order shipped", "body": "Arrives Tuesday", "url": "/orders/42", "tag": "order-42"}.

self.addEventListener('push', (event) => {
    const message = event.data ? event.data.json() : {};
    const title = message.title || 'New message';
    event.waitUntil(
        self.registration.showNotification(title, {
            body: message.body || '',
            tag: message.tag,
            data: { url: message.url || '/' },
        })
    );
});

self.addEventListener('notificationclick', (event) => {
    event.notification.close();
    const url = (event.notification.data && event.notification.data.url) || '/';
    event.waitUntil(self.clients.openWindow(url));
});
