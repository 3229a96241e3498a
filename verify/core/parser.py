"""The argument parser of every ``pdp-audit`` command: errors are one-line InputErrors (exit 2), and what it declares
is kept as data for its readers.  Standard library only, so that ``pdp-audit --help`` stays light."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from pdp_audit.verify.inputs.validation import InputError, quoted


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`InputError` (one line, exit 2) instead of exiting.

    It keeps what it declares, as data for its readers (the CLI fuzz test): ``arguments``, every action added to it
    or to one of its groups, in order (``-h`` first; a subcommand's choice is not among them), ``commands``, its
    subcommands' parsers by name (empty for a leaf command), and ``command_help``, their help texts.  Its readers use
    these, never argparse's private attributes.  A parser may be given its arguments when it is first used rather
    than when it is made (:meth:`defer`).
    """

    def __init__(self, *args: Any, **kwargs: Any):
        self.arguments: list[argparse.Action] = []
        self.commands: dict[str, argparse.ArgumentParser] = {}
        self.command_help: dict[str, str | None] = {}
        self._fill: Callable[[], Any] | None = None
        super().__init__(*args, **kwargs)

    def defer(self, fill: Callable[[], Any]) -> None:
        """Have ``fill()`` add this parser's arguments when it first parses or formats its help or usage, not now.
        argparse hands a command line to the subcommand it names and to no other, so a subcommand's parser that is
        deferred parses and helps exactly as one built at once: ``pdp-audit run NAME`` builds NAME's options only."""
        self._fill = fill

    def _filled(self) -> None:
        fill, self._fill = self._fill, None
        if fill is not None:
            fill()

    def format_usage(self) -> str:
        self._filled()
        return super().format_usage()

    def format_help(self) -> str:
        self._filled()
        return super().format_help()

    def print_help(self, file: Any = None) -> None:
        """argparse's, but a help text that standard output refuses (a full disk behind the redirection, a reader
        that left) raises that OSError, as any command's output does, where argparse dropped it and the command
        exited 0 with nothing written."""
        (sys.stdout if file is None else file).write(self.format_help())

    def print_usage(self, file: Any = None) -> None:
        """As :meth:`print_help`, for the usage line."""
        (sys.stdout if file is None else file).write(self.format_usage())

    def help_text(self, action: argparse.Action) -> str:
        """``action``'s help as ``--help`` shows it, its ``%(default)s``, ``%(choices)s``, ``%(prog)s`` … filled in
        as argparse fills them (its formatter's expansion, done here through public attributes only)."""
        if not action.help or action.help == argparse.SUPPRESS:
            return ""
        params = {key: value for key, value in vars(action).items() if value is not argparse.SUPPRESS}
        params = {key: getattr(value, "__name__", value) for key, value in params.items()}
        params["prog"] = self.prog
        if params.get("choices") is not None:
            params["choices"] = ", ".join(str(choice) for choice in params["choices"])
        return action.help % params

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.arguments.append(action)
        return action

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        """An argument group whose arguments this parser keeps too."""
        return self._keeping(super().add_argument_group(*args, **kwargs))

    def add_mutually_exclusive_group(self, **kwargs: Any) -> Any:
        """A group of mutually exclusive arguments, which this parser keeps too."""
        return self._keeping(super().add_mutually_exclusive_group(**kwargs))

    def _keeping(self, group: Any) -> Any:
        """``group``, its ``add_argument`` also appending each action to :attr:`arguments`."""
        add_to_group = group.add_argument

        def add_argument(*names: Any, **options: Any) -> argparse.Action:
            action = add_to_group(*names, **options)
            self.arguments.append(action)
            return action

        group.add_argument = add_argument
        return group

    def add_subparsers(self, **kwargs: Any) -> Any:
        """The subcommands' action; the parsers it adds are this parser's ``commands``, their help texts its
        ``command_help``."""
        action: Any = super().add_subparsers(**kwargs)  # its add_parser wrapped, as a group's add_argument is
        self.commands = action.choices  # name -> parser, filled by each add_parser
        add_parser = action.add_parser

        def add_command(name: str, **options: Any) -> argparse.ArgumentParser:
            self.command_help[name] = options.get("help")
            return add_parser(name, **options)

        action.add_parser = add_command
        return action

    def parse_known_args(self, args=None, namespace=None):
        """As argparse's, keeping the arguments given (:meth:`error` names a stray one), an option's value that
        starts with '-' taken as its value (:meth:`_joined`)."""
        self._filled()
        self.given = self._joined(list(sys.argv[1:] if args is None else args))
        return super().parse_known_args(self.given, namespace)

    def _joined(self, args: list[str]) -> list[str]:
        """``--bounds -5,5`` as ``--bounds=-5,5``: argparse reads a value that starts with '-' and is not a negative
        number (``-5,5``, ``-inf``) as an option, and the option it follows as given no value.  An option of this
        parser that takes one value, followed by a word that starts with '-' and names none of its options, is
        joined to it (as the user would have to write it); everything after ``--`` is left as it is."""
        takes_one = {name for a in self.arguments if a.nargs is None for name in a.option_strings}
        names = [name for a in self.arguments for name in a.option_strings]
        out: list[str] = []
        for token in args:
            previous = out[-1] if out else ""
            if "--" not in out and previous in takes_one and token.startswith("-") and not _names(token, names):
                out[-1] = f"{previous}={token}"
            else:
                out.append(token)
        return out

    def error(self, message: str):  # one line, no usage dump
        required = "the following arguments are required: "
        stray = self._stray()
        if message.startswith(required) and stray:  # `tau 50`: the 50 is the problem, not only the missing options
            first = message[len(required) :].split(",")[0].strip()
            message += f" (got {quoted(stray)} on its own: every option is named, as in {first} {stray})"
        raise InputError(f"{self.prog}: {message}")

    def _stray(self) -> str | None:
        """The first argument given that is neither an option, nor the value following one, nor one of the command's
        positional arguments (None if none)."""
        positionals = sum(not action.option_strings for action in self.arguments) + bool(self.commands)
        previous = ""
        for token in getattr(self, "given", []):
            if not token.startswith("-") and not (previous.startswith("-") and "=" not in previous):
                if positionals == 0:
                    return token
                positionals -= 1
            previous = token
        return None

    def parse_args(self, args=None, namespace=None):
        """As argparse's, with the arguments it does not know quoted in the message (a newline in one stays
        ``\\n``: the error is one line whatever was typed)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error("unrecognized arguments: " + " ".join(quoted(a) for a in extras))
        return parsed


def _names(token: str, names: list[str]) -> bool:
    """Whether ``token`` names an option of ``names`` (``-``: standard output, a value; ``--``: the end of the
    options; a long option by any prefix argparse would accept, a value after '=' or not)."""
    if token == "-":
        return False
    if token == "--" or token in names:
        return True
    head = token.split("=", 1)[0]
    return head.startswith("--") and any(name.startswith(head) for name in names)
