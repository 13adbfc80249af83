"""Loopback fake Open Food Facts for tools/bench-packaged.sh (Python standard library only).

GET /api/v2/product/CODE answers the recorded product in PRODUCT_JSON with its code set to CODE;
GET /__stats answers {"product_requests": N}; every other path is a 404. Listens on 127.0.0.1 on a
free port and writes the port to PORT_FILE.

Usage: fake_off.py PRODUCT_JSON PORT_FILE
"""
import http.server
import json
import sys
import threading

lock = threading.Lock()
count = 0


def main():
    with open(sys.argv[1], "rb") as f:
        recorded = json.load(f)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            global count
            path = self.path.split("?", 1)[0]
            if path == "/__stats":
                with lock:
                    self.send(200, {"product_requests": count})
            elif path.startswith("/api/v2/product/"):
                with lock:
                    count += 1
                code = path.rsplit("/", 1)[1]
                body = json.loads(json.dumps(recorded))
                body["code"] = code
                body.setdefault("product", {})["code"] = code
                self.send(200, body)
            else:
                self.send(404, {"status": 0})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[2], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
