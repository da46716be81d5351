"""The one parser of numbers and paths on the tools' command lines.

Every tool builds its command line with Parser (argparse, with the rules
below) and these types, so that the same nonsense is refused everywhere, with
the usage and one line on stderr and exit status 2, before anything runs:

    seconds          a timeout: finite, > 0, at most MAX_SECONDS
    whole(lo, hi)    digits only (no sign, no spaces, no '1_000'), lo <= N <= hi
    exit_status      a process exit status: 0 .. 255
    memory_bytes     an address-space limit: 1 .. what setrlimit takes here
    positive(what)   a finite number > 0 (a bandwidth, a rate)
    path             not empty, no NUL byte
    program          a program that exists and may be run (a path, or a name on PATH)

An option that takes a value may be given once: `--program 59 --program 61`
is refused rather than quietly taken as 61 (options meant to repeat say
action="append").
"""

import argparse
import math
import os
import re
import shutil
import sys

# A timeout is waited for with poll(), which takes at most 2^31 - 1 ms.
MAX_SECONDS = 2147483


def _max_memory():
    """What setrlimit(RLIMIT_AS) takes here: below 2^63, and no more than the
    hard limit when there is one."""
    limit = 2 ** 63 - 1
    try:
        import resource
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        if hard != resource.RLIM_INFINITY and 0 < hard < limit:
            limit = hard
    except (ImportError, OSError, ValueError):
        pass
    return limit


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def seconds(text):
    value = _number(text)
    if value is None:
        raise argparse.ArgumentTypeError("wants a number of seconds, not %r" % text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError("wants a positive number of seconds, not %r" % text)
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError("wants at most %d seconds (24 days: what poll() can wait), not %r"
                                         % (MAX_SECONDS, text))
    return value


def whole(lo=0, hi=2 ** 63 - 1, what="a whole number"):
    def parse(text):
        if not re.fullmatch(r"[0-9]+", text or ""):
            raise argparse.ArgumentTypeError("wants %s, not %r" % (what, text))
        value = int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError("wants %s from %d to %d, not %r" % (what, lo, hi, text))
        return value
    parse.__name__ = "whole number"
    return parse


def exit_status(text):
    return whole(0, 255, "an exit status")(text)


def memory_bytes(text):
    if not re.fullmatch(r"[0-9]+", text or ""):
        raise argparse.ArgumentTypeError("wants a whole number of bytes, not %r" % text)
    value = int(text)
    if value == 0:
        raise argparse.ArgumentTypeError("wants a positive number of bytes, not 0 (to set no limit, leave it out)")
    top = _max_memory()
    if value > top:
        raise argparse.ArgumentTypeError("wants at most %d bytes (what setrlimit takes here), not %r" % (top, text))
    return value


def positive(what="a number"):
    def parse(text):
        value = _number(text)
        if value is None or not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError("wants %s > 0, not %r" % (what, text))
        return value
    parse.__name__ = what
    return parse


def path(text):
    if not text:
        raise argparse.ArgumentTypeError("wants a path, not an empty string")
    if "\0" in text:
        raise argparse.ArgumentTypeError("wants a path, not one holding a NUL byte")
    return text


def absolute(text):
    """A path made absolute the way the system follows it: each folder on
    the way resolved, links included -- 'link/../x' is x beside the link's
    TARGET, as mkdir and open see it, not beside the link, as
    os.path.abspath's text-only '..' would have it -- and the last name kept
    as given (a link there stays a link, for the caller to judge). A path
    that ends in '.' or '..' is a folder: resolved whole."""
    stripped = os.fspath(text).rstrip(os.sep)
    if not stripped:
        return os.sep
    head, tail = os.path.split(stripped)
    if tail in (os.curdir, os.pardir):
        return os.path.realpath(stripped)
    return os.path.join(os.path.realpath(head or os.curdir), tail)


def program(text):
    path(text)
    if os.sep in text:
        if not os.path.isfile(text):
            raise argparse.ArgumentTypeError("no program %s" % text)
        if not os.access(text, os.X_OK):
            raise argparse.ArgumentTypeError("%s is not executable" % text)
        return text
    found = shutil.which(text)
    if not found:
        raise argparse.ArgumentTypeError("no program %r on PATH" % text)
    return text


class _Once(argparse.Action):
    """store, but a second value for the same option is an error."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", set())
        if self.dest in given:
            parser.error("%s was given twice" % (option_string or self.dest))
        given.add(self.dest)
        setattr(namespace, self.dest, values)


# What a tool takes from argparse, through here (tool_rules: argparse is built here only).
REMAINDER = argparse.REMAINDER
ArgumentTypeError = argparse.ArgumentTypeError


class Parser(argparse.ArgumentParser):
    """argparse with the companion's rules: a bad command line prints the usage
    and one line naming the problem on stderr, and exits 2; an option that
    takes a value may be given once."""

    def __init__(self, *args, error_prefix=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.error_prefix = error_prefix

    def add_argument(self, *args, **kwargs):
        if args and args[0].startswith("-") and kwargs.get("action") in (None, "store") \
                and kwargs.get("nargs") in (None, "?"):
            kwargs["action"] = _Once
        return super().add_argument(*args, **kwargs)

    def error(self, message):
        try:
            self.print_usage(sys.stderr)
            sys.stderr.write("%s: %s\n" % (self.error_prefix or "%s: error" % self.prog, message))
            sys.stderr.flush()
        except (OSError, ValueError):   # (the reader of stderr has gone: the status still says what happened)
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 2)
            except OSError:
                pass
        sys.exit(2)

    def parse_args(self, args=None, namespace=None):
        ns = super().parse_args(args, namespace)
        ns.__dict__.pop("_given_once", None)
        return ns
