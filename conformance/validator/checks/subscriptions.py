"""Subscriptions (2026-07-28): a subscriptions/listen the server accepts is acknowledged, and the
acknowledgement is the first message tagged with that subscription's id."""

from __future__ import annotations

from conformance.validator.judgement import Judgement, check
from conformance.validator.session import CLIENT, ERROR, NOTIFICATION, REQUEST, SERVER, Message, Session, id_key

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


def _tagged(session: Session, listen: Message) -> list[Message]:
    """The server's messages tagged with ``listen``'s id as their subscription id, after it."""
    return [
        m
        for m in session.sent_by(SERVER)
        if m.seq > listen.seq and SUBSCRIPTION_ID in m.meta and id_key(m.meta[SUBSCRIPTION_ID]) == listen.key
    ]


def _listens(session: Session) -> list[Message]:
    return [m for m in session.sent_by(CLIENT, REQUEST) if m.method == "subscriptions/listen"]


@check("subscriptions-acknowledge")
def listens_acknowledged_first(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """The first message tagged with an accepted subscription's id is its acknowledgement; a listen the
    server ended without error was acknowledged."""
    for listen in _listens(session):
        answers = session.answers_to(listen)
        if answers and answers[0].kind == ERROR:
            continue  # refused: never accepted
        tagged = _tagged(session, listen)
        if not tagged and not answers:
            continue  # the recording may have stopped before the acknowledgement
        judgement.examine()
        if not tagged:
            judgement.fail(answers[0].seq, f"subscription {listen.id!r} ended without being acknowledged")
        elif tagged[0].method != ACKNOWLEDGED:
            judgement.fail(tagged[0].seq, f"the first message of subscription {listen.id!r} is {tagged[0].method}")


@check("subscriptions-nothing-before-ack")
def nothing_before_acknowledgement(session: Session, judgement: Judgement, sides: frozenset[str]) -> None:
    """No notification of a subscription comes before its acknowledgement."""
    for listen in _listens(session):
        acknowledged = False
        for message in _tagged(session, listen):
            if message.kind != NOTIFICATION:
                continue
            if message.method == ACKNOWLEDGED:
                acknowledged = True
                continue
            judgement.examine()
            if not acknowledged:
                judgement.fail(
                    message.seq, f"{message.method} on subscription {listen.id!r} before its acknowledgement"
                )
