export * from './tool-gateway';
export * from './tools.module';
export { CatalogToolGateway } from './catalog-tool-gateway';
export type { ToolGatewayOptions } from './catalog-tool-gateway';
export { callReadTool } from './read-tool-call';
export { IDEMPOTENCY_META_KEY } from './mcp/mcp-tool';
export { binaryLine, toolBinaryOf, type ToolBinary } from './binary/tool-binary';
export { canonicalJson } from './common/step-key';
