"""The client's errors cross a process boundary intact: a process pool's worker, Celery or
multiprocessing pickles what a turn raised."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import pickle

import pytest

from sharedesk_transcript import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    InternalServerError,
    ProblemError,
)


def problems() -> list[Exception]:
    return [
        ProblemError("view on desk eng", status=418, title="I'm a teapot"),
        AuthenticationError("view on desk eng", status=401, title="Unauthorized", detail="unknown token"),
        ConflictError("post on desk eng", status=409, type="tag:x,2025:problem:key-conflict", title="Conflict"),
        InternalServerError("view on desk eng", status=503, title="Service Unavailable", retry_after=2.0),
        APIConnectionError("view on desk eng"),
        APIConnectionError("view on desk eng", "an answer that is not JSON"),
        APITimeoutError("view on desk eng"),
    ]


@pytest.mark.parametrize("err", problems(), ids=lambda e: type(e).__name__)
def test_an_error_survives_pickling(err: Exception) -> None:
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is type(err)
    assert str(copy) == str(err) and copy.args == err.args
    assert vars(copy) == vars(err)
    if isinstance(err, ProblemError):
        assert isinstance(copy, ProblemError)
        assert (copy.status, copy.type, copy.title, copy.detail, copy.retry_after) == (
            err.status,
            err.type,
            err.title,
            err.detail,
            err.retry_after,
        )


def test_the_timeout_s_message_is_said_once() -> None:
    copy = pickle.loads(pickle.dumps(APITimeoutError("view on desk eng")))
    assert str(copy) == "view on desk eng: no answer within the timeout"


def raise_one(i: int) -> None:
    raise problems()[i]


def test_errors_come_back_from_a_process_pool() -> None:
    want = problems()
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as pool:
        futures = [pool.submit(raise_one, i) for i in range(len(want))]
        for future, err in zip(futures, want, strict=True):
            got = future.exception(timeout=60)
            assert type(got) is type(err) and str(got) == str(err)
            assert getattr(got, "status", None) == getattr(err, "status", None)
