"""Decode the details mcpbridge puts on its gRPC errors.

Every error status the bridge returns carries a google.rpc.Status in the
`grpc-status-details-bin` trailer, whose details hold an
mcpbridge.v1.JsonRpcError and a google.rpc.ErrorInfo, and sometimes a
google.rpc.RetryInfo or google.rpc.BadRequest (docs/errors.md).
grpcio-status's rpc_status.from_call() would do the first step; this needs
only protobuf and the stubs that `buf generate` writes (README.md).

    try:
        stub.CallTool(request, timeout=10)
    except grpc.RpcError as err:
        d = mcpbridge_errors.details(err)
        print(d.code, d.json_rpc_error.code, d.error_info.reason)

Copy this file next to your code; it imports the generated google.rpc and
mcpbridge.v1 modules.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from mcpbridge.v1 import bridge_pb2

DETAILS_TRAILER = "grpc-status-details-bin"


@dataclasses.dataclass
class ErrorDetails:
    """A gRPC error and the details the bridge attached; a detail is None
    when the status does not carry it."""

    code: grpc.StatusCode
    message: str
    json_rpc_error: Optional[bridge_pb2.JsonRpcError] = None
    error_info: Optional[error_details_pb2.ErrorInfo] = None
    retry_info: Optional[error_details_pb2.RetryInfo] = None
    bad_request: Optional[error_details_pb2.BadRequest] = None
    other: list[any_pb2.Any] = dataclasses.field(default_factory=list)


# The detail types this helper unpacks, by the ErrorDetails field they fill.
_KNOWN = {
    "json_rpc_error": bridge_pb2.JsonRpcError,
    "error_info": error_details_pb2.ErrorInfo,
    "retry_info": error_details_pb2.RetryInfo,
    "bad_request": error_details_pb2.BadRequest,
}


def details(err: grpc.RpcError) -> ErrorDetails:
    """Returns err's code, message and decoded details. err is what a call
    on a grpcio stub raised (a grpc.Call as well as a grpc.RpcError)."""
    out = ErrorDetails(code=err.code(), message=err.details() or "")
    raw = next((v for k, v in err.trailing_metadata() or () if k == DETAILS_TRAILER), None)
    if raw is None:
        return out  # no details: UNAUTHENTICATED, or a status grpc made itself
    status = status_pb2.Status.FromString(raw)
    for any_msg in status.details:
        for field, cls in _KNOWN.items():
            if any_msg.Is(cls.DESCRIPTOR):
                msg = cls()
                any_msg.Unpack(msg)
                setattr(out, field, msg)
                break
        else:
            out.other.append(any_msg)
    return out
