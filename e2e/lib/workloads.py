"""Workloads and pod states the migration, drain and rescheduler suites share."""


def deployment(name, replicas, cpu="500m"):
    """A Deployment in default of `replicas` nginx pods labelled app=<name>, each asking for `cpu`, placed by
    koord-scheduler (berth)."""
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"schedulerName": "koord-scheduler",
                                           "containers": [{"name": "c", "image": "nginx",
                                                           "resources": {"requests": {"cpu": cpu}}}]}}}}


def ready(pod):
    """The pod is Ready and not being deleted."""
    return not pod["metadata"].get("deletionTimestamp") and any(
        c["type"] == "Ready" and c["status"] == "True" for c in pod.get("status", {}).get("conditions", []))
