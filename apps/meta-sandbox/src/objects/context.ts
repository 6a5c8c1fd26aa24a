import type { Params } from '../params';
import type { SandboxStore } from '../store';

/** Everything a create handler needs: the account (digits, no `act_`), merged params and the store. */
export interface CreateContext {
  store: SandboxStore;
  accountId: string;
  params: Params;
  /** Origin the sandbox is reachable at, used to build image URLs. */
  origin: string;
}
