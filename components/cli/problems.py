"""Input the user can fix, as the command line reports it: one line per problem, exit 2.

`program_problems` turns whatever running a project's program raises (a stack file error, a config error, the program's
own failure or early exit) into `BadInputError`, so no traceback ever reaches the user.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from ..signals import signal_handler
from .output import MAX_LINE, BadInputError


class Interrupted:
    """Whether a real SIGINT (Ctrl-C) arrived while a command ran: a KeyboardInterrupt without one is the program's own
    ``raise KeyboardInterrupt``, a failure of the program like any other (exit 2), not the user stopping the command."""

    signalled = False

    @classmethod
    @contextmanager
    def watched(cls) -> Iterator[None]:
        """Records SIGINT while the block runs (where a handler can be set: the main thread, default handler)."""
        cls.signalled = False

        def handler(number: int, frame: FrameType | None) -> None:
            cls.signalled = True
            signal.default_int_handler(number, frame)

        with signal_handler(signal.SIGINT, handler, only_replacing=signal.default_int_handler):
            yield


@contextmanager
def program_problems(directory: Path, passthrough: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Whatever running a project's program raises (but `passthrough`), as BadInputError with one line per problem."""
    from pulumi.errors import InputPropertiesError, InputPropertyError

    from ..config import ConfigError
    from ..offline import StackFileError
    from ..offline.running import ProgramError, args_error_lines, describe_failure, one_line

    try:
        yield
    except StackFileError as exc:
        raise BadInputError(exc.lines) from None
    except ProgramError as exc:
        raise BadInputError([str(exc)]) from None
    except ConfigError as exc:  # (a program importing the package as aks_dra_vgpu raises its twin: matched below)
        if exc.title:  # a component's arguments, built in the program: which line, which resource, which Args class
            raise BadInputError(args_error_lines(exc, exc.title, [str(p) for p in exc.problems], directory)) from None
        raise BadInputError([one_line(str(p), MAX_LINE) for p in exc.problems]) from None
    except InputPropertiesError as exc:
        lines = [f"{e['property_path'] + ': ' if e['property_path'] else ''}{e['reason']}" for e in (exc.errors or [])]
        kinds = {kind.__name__ for kind in type(exc).__mro__}
        if "ConfigError" in kinds and getattr(exc, "title", ""):  # the package's ConfigError under its installed name
            raise BadInputError(args_error_lines(exc, exc.title, lines, directory)) from None
        if not kinds & {"ProgramInputError", "ConfigError"}:  # a component refused its inputs: where, which, why
            title = " ".join(str(exc.message).split(";")[0].split())
            raise BadInputError(args_error_lines(exc, title, lines or [str(exc.message)], directory)) from None
        raise BadInputError([one_line(line, MAX_LINE) for line in lines] or [one_line(exc.message)]) from None
    except InputPropertyError as exc:
        raise BadInputError([one_line(f"{exc.property_path}: {exc.reason}", MAX_LINE)]) from None
    except KeyboardInterrupt as exc:
        if Interrupted.signalled:
            raise
        raise BadInputError([describe_failure(exc, directory)]) from None
    except (BadInputError, *passthrough):
        raise
    except BaseException as exc:  # the program's own failure (even a bare BaseException): where and what, in one line
        raise BadInputError([describe_failure(exc, directory)]) from None
