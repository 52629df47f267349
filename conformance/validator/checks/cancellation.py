"""Cancellation: the receiver of notifications/cancelled sends no response to the request it cancels.

A result can cross the notification in flight (the work finished first), and the trace cannot time either
side. So a late answer counts when it is an error (the abandoned work's own report: an answer to the
cancellation, such as -32800 Request cancelled), or when the receiver had surely read the cancellation before
sending it: it had by then answered a request that reached it after the cancellation (each side reads its
input in order).
"""

from __future__ import annotations

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, ERROR, NOTIFICATION, REQUEST, Message, Session, id_key, other


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
        read_past = _first_answer_to_later_request(session, receiver, notice)
        late = [
            a
            for a in answers
            if a.seq > notice.seq and (a.kind == ERROR or (read_past is not None and a.seq > read_past))
        ]
        if late:
            judgement.fail(late[0].seq, f"the {receiver} answered request {request.id!r} after it was cancelled")


def _first_answer_to_later_request(session: Session, receiver: str, notice: Message) -> int | None:
    """The seq of the receiver's first answer to a request that reached it after ``notice``."""
    for message in session.sent_by(other(receiver), REQUEST):
        if message.seq > notice.seq:
            answers = session.answers_to(message)
            if answers:
                return answers[0].seq
    return None
