"""The one way the package sets a signal handler for a block (components/signals.py), and its two users: the CLI's
watch for a real Ctrl-C and verify's smoke, which cleans up on SIGTERM as on Ctrl-C."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from components.cli.problems import Interrupted
from components.signals import signal_handler
from components.verify import smoke

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="POSIX signals")


def test_the_handler_runs_in_the_block_and_the_previous_one_comes_back():
    seen = []
    before = signal.getsignal(signal.SIGUSR1)
    with signal_handler(signal.SIGUSR1, lambda number, frame: seen.append(number)) as installed:
        assert installed
        os.kill(os.getpid(), signal.SIGUSR1)
    assert seen == [signal.SIGUSR1]
    assert signal.getsignal(signal.SIGUSR1) is before


def test_the_previous_handler_comes_back_when_the_block_raises():
    before = signal.getsignal(signal.SIGUSR1)
    with pytest.raises(RuntimeError), signal_handler(signal.SIGUSR1, lambda number, frame: None):
        raise RuntimeError("boom")
    assert signal.getsignal(signal.SIGUSR1) is before


def test_outside_the_main_thread_nothing_is_set_and_the_block_still_runs():
    found = []

    def other() -> None:
        with signal_handler(signal.SIGUSR1, lambda number, frame: None) as installed:
            found.append(installed)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert found == [False]


def test_only_replacing_leaves_someone_elses_handler_alone():
    def theirs(number, frame):
        pass

    previous = signal.signal(signal.SIGUSR1, theirs)
    try:
        with signal_handler(signal.SIGUSR1, lambda number, frame: None, only_replacing=signal.SIG_DFL) as installed:
            assert not installed and signal.getsignal(signal.SIGUSR1) is theirs
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_the_cli_records_a_real_ctrl_c_and_restores_the_default():
    with pytest.raises(KeyboardInterrupt), Interrupted.watched():
        os.kill(os.getpid(), signal.SIGINT)
    assert Interrupted.signalled
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_smoke_turns_sigterm_into_an_interrupt_for_its_cleanup():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), smoke._terminate_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is before
