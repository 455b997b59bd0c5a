"""resource.Quantity arithmetic for the e2e suites: what a pod requests, in cores and bytes."""

UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
         "m": 0.001}


def quantity(text):
    """A resource.Quantity string as a float (cpu in cores, memory in bytes); raises ValueError on garbage."""
    text = str(text)
    for suffix in sorted(UNITS, key=len, reverse=True):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * UNITS[suffix]
    return float(text)


def pod_requests(pod):
    """The sum of a pod's container requests, per resource name."""
    total = {}
    for c in pod["spec"].get("containers", []):
        for k, v in c.get("resources", {}).get("requests", {}).items():
            total[k] = total.get(k, 0.0) + quantity(v)
    return total
