"""``make stability`` (conformance/cli/stability.py): its selection, and its account of outcomes that changed."""

from __future__ import annotations

from conformance.cli.stability import changed_items, is_timing_dependent, outcomes_of, selected_tests


def cell(requirement: str, transports: dict[str, str], outcome: str = "pass") -> dict:
    return {
        "requirement": requirement,
        "revision": "2025-06-18",
        "side": "client",
        "outcome": outcome,
        "transports": transports,
    }


def test_a_report_gives_one_item_per_cell_and_transport() -> None:
    report = {"cells": [cell("a", {"stdio": "pass", "streamable-http": "warn"}), cell("b", {}, "fixture-missing")]}
    assert outcomes_of(report) == {
        ("a", "2025-06-18", "client", "stdio"): "pass",
        ("a", "2025-06-18", "client", "streamable-http"): "warn",
        ("b", "2025-06-18", "client", ""): "fixture-missing",
    }


def test_only_items_whose_outcome_moved_are_changed() -> None:
    steady, moved, lost = ("a", "r", "client", "stdio"), ("b", "r", "client", "stdio"), ("c", "r", "client", "")
    runs = [{steady: "warn", moved: "pass", lost: "pass"}, {steady: "warn", moved: "inconclusive"}]
    assert changed_items(runs) == {moved: ["pass", "inconclusive"], lost: ["pass", "absent"]}


def test_timing_dependence_is_by_area_or_a_word_of_the_id() -> None:
    assert is_timing_dependent({"id": "progress-token-unique", "area": "progress"})
    assert is_timing_dependent({"id": "lifecycle-client-request-timeouts", "area": "lifecycle"})
    assert is_timing_dependent({"id": "cancellation-race-graceful", "area": "cancellation"})
    assert not is_timing_dependent({"id": "meta-trace-context-format", "area": "meta"})  # "race" inside a word


def test_the_selection_is_client_tests_only() -> None:
    tests = selected_tests()
    assert "conformance/test_cancellation.py::test_the_client_cancels_requests_still_in_flight" in tests
    assert "conformance/test_cancellation.py::test_a_cancelled_request_stops_being_processed" not in tests
