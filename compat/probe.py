#!/usr/bin/env python3
"""A tiny MCP server that records what each assistant really sends it.

A CLI's listing shows what it parsed; this probe shows what it does with it: the argv and
environment a stdio server is started with, and the URL path and headers a remote server
receives. Every observation is one JSON line appended to the log file.

    probe.py stdio LOG [ARG ...]   stdio server; logs argv (after LOG) and every PROBE_* variable
    probe.py http LOG PORTFILE     streamable HTTP at /mcp and legacy HTTP+SSE at /sse on
                                   127.0.0.1, on a free port written to PORTFILE

Only the standard library is used. The server offers one tool, `probe_echo`.
"""

import json
import os
import queue
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

LOCK = threading.Lock()
TOOLS = [
    {
        "name": "probe_echo",
        "description": "Returns its input.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    }
]


def log(path, record):
    """Appends one observation to the log as a JSON line."""
    with LOCK, open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(record, sort_keys=True) + "\n")


def answer(message):
    """The reply to one JSON-RPC message, or None for a notification."""
    if "id" not in message or "method" not in message:
        return None
    method = message["method"]
    if method == "initialize":
        params = message.get("params") or {}
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "ai-rulez-probe", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method in ("ping", "resources/list", "prompts/list", "resources/templates/list"):
        key = {"ping": None, "resources/list": "resources", "prompts/list": "prompts",
               "resources/templates/list": "resourceTemplates"}[method]
        result = {} if key is None else {key: []}
    elif method == "tools/call":
        text = ((message.get("params") or {}).get("arguments") or {}).get("text", "")
        result = {"content": [{"type": "text", "text": text}]}
    else:
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32601, "message": f"method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def client_of(message):
    """The clientInfo of an initialize request, else None."""
    if message.get("method") == "initialize":
        return (message.get("params") or {}).get("clientInfo")
    return None


def run_stdio(log_path, args):
    env = {k: v for k, v in os.environ.items() if k.startswith("PROBE_")}
    log(log_path, {"transport": "stdio", "event": "start", "argv": args, "env": env})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        if client_of(message):
            log(log_path, {"transport": "stdio", "event": "initialize", "argv": args,
                           "client": client_of(message)})
        reply = answer(message)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def run_http(log_path, port_file):
    sessions = {}  # legacy SSE session id -> queue of messages to push

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def record(self, transport, rpc=None, client=None):
            headers = {k.lower(): v for k, v in self.headers.items()
                       if k.lower() == "authorization" or k.lower().startswith("x-probe")}
            entry = {"transport": transport, "event": "request", "method": self.command,
                     "path": urlparse(self.path).path, "headers": headers}
            if rpc:
                entry["rpc"] = rpc
            if client:
                entry["client"] = client
            log(log_path, entry)

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length) or b"null")

        def send(self, status, payload=None, content_type="application/json", extra=()):
            data = b"" if payload is None else json.dumps(payload).encode()
            self.send_response(status)
            for name, value in extra:
                self.send_header(name, value)
            if payload is not None:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            path = urlparse(self.path).path
            if path != "/sse":
                self.record("http")
                self.send(405)
                return
            self.record("sse")
            sid = uuid.uuid4().hex
            pending = queue.Queue()
            sessions[sid] = pending
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            try:
                self.wfile.write(f"event: endpoint\ndata: /messages?sid={sid}\n\n".encode())
                self.wfile.flush()
                while True:
                    try:
                        reply = pending.get(timeout=15)
                        self.wfile.write(f"event: message\ndata: {json.dumps(reply)}\n\n".encode())
                    except queue.Empty:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                sessions.pop(sid, None)
                self.close_connection = True

        def do_POST(self):
            url = urlparse(self.path)
            message = self.body()
            messages = message if isinstance(message, list) else [message]
            rpc = ",".join(m.get("method", "reply") for m in messages if isinstance(m, dict))
            client = next((client_of(m) for m in messages if client_of(m)), None)
            if url.path == "/messages":
                self.record("sse", rpc, client)
                pending = sessions.get((parse_qs(url.query).get("sid") or [""])[0])
                if pending is None:
                    self.send(404)
                    return
                for m in messages:
                    reply = answer(m)
                    if reply is not None:
                        pending.put(reply)
                self.send(202)
                return
            if url.path != "/mcp":
                self.record("http", rpc, client)
                self.send(404)
                return
            self.record("http", rpc, client)
            replies = [r for r in (answer(m) for m in messages) if r is not None]
            extra = [("Mcp-Session-Id", "probe")] if client else []
            if not replies:
                self.send(202, extra=extra)
            else:
                self.send(200, replies if isinstance(message, list) else replies[0], extra=extra)

        def do_DELETE(self):
            self.record("http")
            self.send(200)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(port_file + ".tmp", "w", encoding="utf-8") as out:
        out.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "stdio":
        run_stdio(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[1] == "http":
        run_http(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
