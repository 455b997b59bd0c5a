#!/usr/bin/env python3
"""Monte Carlo model of berth's Lease renewal under the chaos soak's fault model (10% of requests fail:
500, 429, 409, 503 equally; 409 on a GET becomes 500; 429/503 carry Retry-After: 1).
Transport (HttpsRestClient): 429/503 retried after 1 s for any method; a 500 on a GET retried with
200 ms doubling backoff; a PUT's 500/409 is final; each request bounded by 2 s (max(renew/2, 1 s)).
Elector: renewDeadline 4 s, retryPeriod 1 s (the soak's flags), fence counted from the start of the last
successful attempt. Prints, for three versions of the renew loop, how often a leader loses its Lease by itself
within 170 s (one soak's leader time). The model explains the soak's spontaneous Lease losses (README,
Reliability); it measures nothing. Usage: scripts/lease_renewal_model.py [RUNS] (default 20000; seeded)."""
import random, sys

RATE, DEADLINE, RETRY, REQ_TIMEOUT, LAT = 0.10, 4.0, 1.0, 2.0, 0.002

def request(method, rng):
    """Returns (ok, seconds)."""
    t, k = 0.0, 0
    while True:
        t += LAT
        if rng.random() >= RATE:
            return True, t
        code = rng.choice([500, 429, 409, 503])
        if code == 409 and method == "GET":
            code = 500
        if code in (429, 503):
            wait = 1.0
        elif method == "GET":
            wait = 0.2 * 2 ** k
        else:
            return False, t
        if t + wait >= REQ_TIMEOUT:
            return False, t
        t += wait
        k += 1

def attempt(fast_path, rng):
    t = 0.0
    if fast_path:
        ok, d = request("PUT", rng); t += d
        if ok:
            return True, t
    ok, d = request("GET", rng); t += d
    if not ok:
        return False, t
    ok, d = request("PUT", rng); t += d
    return ok, t

def run(seconds, fast_path, ticker, rng):
    now, closes = 0.0, DEADLINE
    nxt = RETRY
    while now < seconds:
        now = min(nxt, closes)
        if now >= closes:
            return True  # lost
        start = now
        ok, d = attempt(fast_path, rng)
        now += d
        if ok:
            closes = max(closes, start + DEADLINE)
            nxt = now + RETRY
        else:
            nxt = (start + RETRY) if ticker else (now + RETRY)
            nxt = max(nxt, now)
    return False

if __name__ == "__main__":
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rng = random.Random(7)
    for name, fast, tick in [("Get+Update every renewal, retryPeriod after each failure ends (before the fast path)", False, False),
                             ("fast path, retryPeriod after each failure ends", True, False),
                             ("fast path, retryPeriod ticker from each attempt's start (now)", True, True)]:
        lost = sum(run(170, fast, tick, rng) for _ in range(runs))
        print(f"{name}: P(a leader loses its Lease within 170 s) = {lost / runs:.4f} ({lost}/{runs})")
