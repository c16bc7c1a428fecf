"""The status and headers of an answer to a GET for `size` bytes, with "Range: bytes=A-"
honoured (206 and Content-Range, or 416 past the end), for the test HTTP servers."""


def send_range_headers(handler, size, content_type, honour_range=True):
    """Sends them on `handler` (a BaseHTTPRequestHandler); returns the first byte to send,
    or None when the answer is a 416 (no body)."""
    wanted = handler.headers.get("Range", "") if honour_range else ""
    start = 0
    if wanted.startswith("bytes="):
        start = int(wanted[6:].split("-")[0])
        if start >= size:
            handler.send_response(416)
            handler.send_header("Content-Range", f"bytes */{size}")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return None
        handler.send_response(206)
        handler.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
    else:
        handler.send_response(200)
    handler.send_header("Content-Length", str(size - start))
    handler.send_header("Content-Type", content_type)
    handler.end_headers()
    return start
