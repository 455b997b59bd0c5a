"""A watch on one collection, followed in a thread: the drain suite's budget checker and the drain benchmark share it."""
import json
import threading


class Watcher:
    """Follows a collection from resourceVersion `rv` in a thread (re-watching from the last event on a timeout) and
    calls on_event(type, object) for every event, in order. Events are kept as (rv, type, object) unless
    keep_events is False (a benchmark following thousands of pods needs only its callback)."""

    def __init__(self, sim, path, rv, on_event=None, keep_events=True):
        self.sim, self.path, self.rv, self.on_event = sim, path, rv, on_event
        self.keep_events = keep_events
        self.events = []
        self.error = None
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            while not self.stopping.is_set():
                r = self.sim.http("GET", f"{self.path}?watch=1&resourceVersion={self.rv}&timeoutSeconds=2",
                                  stream=True, timeout=30)
                r.raise_for_status()
                for line in r.iter_lines():
                    if not line:
                        continue
                    event = json.loads(line)
                    obj = event["object"]
                    if event["type"] == "ERROR":
                        raise AssertionError(f"watch of {self.path} failed: {obj}")
                    self.rv = obj["metadata"]["resourceVersion"]
                    if self.keep_events:
                        self.events.append((int(self.rv), event["type"], obj))
                    if self.on_event:
                        self.on_event(event["type"], obj)
        except Exception as e:  # reported by stop()
            self.error = e

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=10)
        if self.error:
            raise AssertionError(f"watcher of {self.path}: {self.error!r}")
