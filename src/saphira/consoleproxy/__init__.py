"""The console proxies: a browser's websocket in, the guest's console server out.

``server.ConsoleProxy`` is one proxy for one console type (noVNC today;
SPICE and serial take the same server with their own web root): it serves
the client's static files, and on a websocket upgrade checks the request
(``checks``), asks the token's owner (``computesvc.consoles.validate``, given
as a callable: the proxy never reads a database itself), connects to the
guest's console server and relays (``relay``) until either side goes, or
the token expires when ``[consoleauth] enforce_session_timeout`` is set.

websockify is the field's library and does the websocket protocol
(handshake, framing, masking) here. Its own server forks (or runs one
process per connection) and is built around its CLI options; the all-in-one
runs every service as threads of one process, so the proxy is a
``http.server.ThreadingHTTPServer`` whose handler hands the socket to
websockify's ``HttpWebSocket`` after the checks, as Nova's handler does
inside websockify's server.
"""
