"""fricl's exceptions: one class per fricl_status.

Every error raised by fricl is an instance of :class:`Error`, with

* ``status``: the status name (``"INVALID_ARGUMENT"``, ``"NO_FP64"``, ...),
* ``code``: the C library's value (``-1``, ``-4``, ...),
* ``message``: fricl's detailed message (``fricl_context_last_error``): it
  names the argument at fault and, for arrays, the first bad index.

The subclasses also derive from the matching built-in exception where one
fits, so ``except ValueError`` catches invalid arguments.
"""
from __future__ import annotations

from . import _native

__all__ = [
    "Error", "InvalidArgumentError", "OutOfMemoryError", "DeviceNotFoundError",
    "NoFP64Error", "OpenCLError", "BuildFailedError", "UnsupportedError",
    "InternalError",
]


class Error(Exception):
    """A fricl call failed. ``status``, ``code`` and ``message`` say how."""

    status = "INTERNAL"
    code = -8

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return "%s: %s" % (self.status, self.message)


class InvalidArgumentError(Error, ValueError):
    """FRICL_STATUS_INVALID_ARGUMENT: an argument was rejected before any
    work was done (nothing was written)."""

    status, code = "INVALID_ARGUMENT", -1


class OutOfMemoryError(Error, MemoryError):
    """FRICL_STATUS_OUT_OF_MEMORY: host or device memory ran out."""

    status, code = "OUT_OF_MEMORY", -2


class DeviceNotFoundError(Error, LookupError):
    """FRICL_STATUS_DEVICE_NOT_FOUND: an explicit device spec matched no
    device (only ``"auto"`` falls back)."""

    status, code = "DEVICE_NOT_FOUND", -3


class NoFP64Error(Error):
    """FRICL_STATUS_NO_FP64: the device has no double precision; float32
    still works."""

    status, code = "NO_FP64", -4


class OpenCLError(Error, RuntimeError):
    """FRICL_STATUS_OPENCL_ERROR: an OpenCL runtime call failed."""

    status, code = "OPENCL_ERROR", -5


class BuildFailedError(Error, RuntimeError):
    """FRICL_STATUS_BUILD_FAILED: an OpenCL kernel did not compile; the
    message holds the build log."""

    status, code = "BUILD_FAILED", -6


class UnsupportedError(Error, NotImplementedError):
    """FRICL_STATUS_UNSUPPORTED: the operation is not supported here."""

    status, code = "UNSUPPORTED", -7


class InternalError(Error, RuntimeError):
    """FRICL_STATUS_INTERNAL: a bug in fricl; please report it."""

    status, code = "INTERNAL", -8


# Indexed by -status (status OK = 0 has no class).
_BY_CODE = (None, InvalidArgumentError, OutOfMemoryError, DeviceNotFoundError,
            NoFP64Error, OpenCLError, BuildFailedError, UnsupportedError,
            InternalError)
_native._register_errors(_BY_CODE)


def _check_tables() -> None:
    """The class list must follow the library's status list."""
    names = _native.tables()["statuses"]
    for code, cls in enumerate(_BY_CODE):
        if cls is not None and names[code] != cls.status:
            raise ImportError("fricl: status table mismatch (%s vs %s)"
                              % (names[code], cls.status))


_check_tables()
