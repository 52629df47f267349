"""Cancellation: the receiver of notifications/cancelled sends no response to the request it cancels.

A response can cross the notification in flight; a trace recorded between the two sides shows the order in
which they passed the recorder, which is the order each side sent them for a side's own messages and read
them for the other's: a response recorded after the cancellation was sent after the receiver could read it.
"""

from __future__ import annotations

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, NOTIFICATION, Session, id_key, other


@check("cancellation-receiver-no-response", "cancellation-server-no-response")
def cancelled_requests_left_unanswered(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No response to a request after its requester cancelled it."""
    for notice in session.messages:
        if notice.kind != NOTIFICATION or notice.method != "notifications/cancelled":
            continue
        receiver = other(notice.sender)
        if receiver not in sides or "requestId" not in notice.params:
            continue
        requester = CLIENT if session.modern else notice.sender
        request = session.requests.get((requester, id_key(notice.params["requestId"])))
        if request is None or request.seq > notice.seq:
            continue
        answers = session.answers_to(request)
        if answers and answers[0].seq < notice.seq:
            continue  # answered before the cancellation: nothing left to cancel
        judgement.examine()
        late = [answer for answer in answers if answer.seq > notice.seq]
        if late:
            judgement.fail(late[0].seq, f"the {receiver} answered request {request.id!r} after it was cancelled")
