"""Coverage of the cancellation area: no test yet; every applicable cell is gapped, by name.

Loaded by path (this folder is not a package); see conformance/covers.py. When a test arrives,
add its Cover and take its id off the list below.
"""

from conformance.covers import Cover, Gap, gaps

COVERS: list[Cover] = []

GAPS: list[Gap] = [
    *gaps(
        "#3",
        "catalogued, not yet tested",
        {
            "cancellation-server-sent-only-subscriptions": "server",
            "cancellation-reference-own-inflight-request": "both",
            "cancellation-reference-client-request": "both",
            "cancellation-initialize-not-cancellable": "client",
            "cancellation-tasks-use-tasks-cancel": "both",
            "cancellation-receiver-stop-processing": "both",
            "cancellation-receiver-no-response": "both",
            "cancellation-server-stop-processing": "server",
            "cancellation-server-no-response": "server",
            "cancellation-receiver-may-ignore": "both",
            "cancellation-server-may-ignore": "server",
            "cancellation-sender-ignore-late-response": "both",
            "cancellation-client-ignore-late-response": "client",
            "cancellation-race-graceful": "both",
            "cancellation-log-reasons": "both",
            "cancellation-ui-indication": "client",
            "cancellation-ignore-invalid": "both",
            "cancellation-target-in-flight-cancellednotification": "both",
            "cancellation-reason-logged-or-shown-reason": "both",
            "cancellation-request-id-for-non-task-requestid": "both",
            "cancellation-client-signals-cancel": "client",
            "cancellation-server-subscription-teardown": "server",
        },
    ),
]
