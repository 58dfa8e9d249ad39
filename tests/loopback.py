"""One HTTP client for the tests' raw requests to an emulator on loopback.

`httpx.get`, `httpx.post` and `httpx.request` build a client per call, and with it an SSL context that loads
the CA bundle: about 27 ms of CPU each, for plain-HTTP requests to 127.0.0.1 that never use it. One client
serves them all; it is closed at the process's exit (not with a module: under xdist a module's tests can come
back to a worker after its module-scoped fixtures were torn down).
"""

from __future__ import annotations

import atexit

import httpx

CLIENT = httpx.Client(timeout=30)
atexit.register(CLIENT.close)

get = CLIENT.get
post = CLIENT.post
request = CLIENT.request
