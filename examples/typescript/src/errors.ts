// The error details of mcpbridge, decoded: copy this file into your project.
//
// Every error status the bridge returns carries, in google.rpc.Status.details
// (the grpc-status-details-bin trailer), an mcpbridge.v1.JsonRpcError and a
// google.rpc.ErrorInfo with domain "mcpbridge"; RetryInfo comes with
// UNAVAILABLE and RESOURCE_EXHAUSTED when trying again later may work, and
// BadRequest with INVALID_ARGUMENT when the bridge refused a field of the
// request. connect-es keeps the details undecoded until you name their
// schemas, which is what bridgeErrorDetails does.

import { Code, ConnectError } from "@connectrpc/connect";
import { durationMs } from "@bufbuild/protobuf/wkt";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  RetryInfoSchema,
  type BadRequest,
  type ErrorInfo,
  type RetryInfo,
} from "./gen/google/rpc/error_details_pb.js";
import { JsonRpcErrorSchema, type JsonRpcError } from "./gen/mcpbridge/v1/bridge_pb.js";

/** What the bridge says about a failed call. */
export interface BridgeErrorDetails {
  /** The gRPC status code, for example Code.InvalidArgument. */
  code: Code;
  /** The status message (the JSON-RPC error's message), without connect-es's "[code]" prefix. */
  message: string;
  /**
   * The JSON-RPC error the child sent, or the one the bridge would answer an
   * MCP client with. code is a plain number (an int32), dataJson is JSON text
   * ("" when the error had no data).
   */
  jsonRpc?: JsonRpcError;
  /** reason (CHILD_ERROR, INVALID_INPUT, TIMEOUT, ...), domain "mcpbridge", metadata server, method, code. */
  errorInfo?: ErrorInfo;
  /** When to try again, with UNAVAILABLE and RESOURCE_EXHAUSTED. */
  retryInfo?: RetryInfo;
  /** retryInfo.retryDelay in milliseconds. */
  retryDelayMs?: number;
  /** The request fields the bridge refused, with INVALID_ARGUMENT. */
  badRequest?: BadRequest;
}

/**
 * bridgeErrorDetails decodes the details of an error thrown by a connect
 * client of mcpbridge.v1.BridgeService. Any other error (a TypeError, a
 * network failure) becomes a ConnectError too, with code Unknown or
 * Unavailable and no details, so callers can use the result unconditionally.
 */
export function bridgeErrorDetails(err: unknown): BridgeErrorDetails {
  const ce = ConnectError.from(err);
  const details: BridgeErrorDetails = { code: ce.code, message: ce.rawMessage };
  const jsonRpc = ce.findDetails(JsonRpcErrorSchema)[0];
  if (jsonRpc !== undefined) details.jsonRpc = jsonRpc;
  const errorInfo = ce.findDetails(ErrorInfoSchema)[0];
  if (errorInfo !== undefined) details.errorInfo = errorInfo;
  const retryInfo = ce.findDetails(RetryInfoSchema)[0];
  if (retryInfo !== undefined) {
    details.retryInfo = retryInfo;
    if (retryInfo.retryDelay !== undefined) details.retryDelayMs = durationMs(retryInfo.retryDelay);
  }
  const badRequest = ce.findDetails(BadRequestSchema)[0];
  if (badRequest !== undefined) details.badRequest = badRequest;
  return details;
}

/** describeError formats an error and its bridge details on one line, for logs. */
export function describeError(err: unknown): string {
  const d = bridgeErrorDetails(err);
  let s = `${Code[d.code]}: ${d.message}`;
  if (d.jsonRpc) s += ` [JSON-RPC ${d.jsonRpc.code}${d.jsonRpc.dataJson ? " data " + d.jsonRpc.dataJson : ""}]`;
  if (d.errorInfo) s += ` [${d.errorInfo.domain}/${d.errorInfo.reason} ${JSON.stringify(d.errorInfo.metadata)}]`;
  if (d.retryDelayMs !== undefined) s += ` [retry in ${d.retryDelayMs} ms]`;
  for (const v of d.badRequest?.fieldViolations ?? []) s += ` [bad field ${v.field}: ${v.reason} ${v.description}]`;
  return s;
}
