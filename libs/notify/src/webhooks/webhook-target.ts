import { checkOutboundTarget, isPrivateAddress } from '@vigil/platform';
import { DomainError } from '@vigil/tasks';

export class WebhookTargetError extends DomainError {
  readonly kind = 'invalid';
}

/** The shared address guard (libs/platform, address-guard.ts), re-exported where webhooks use it. */
export { isPrivateAddress };

/**
 * Refuses webhook targets on loopback, private or link-local addresses (SSRF), unless the operator
 * allowed them. Names are resolved so a public-looking host that points inward is refused too.
 */
export async function assertWebhookTarget(url: string, allowPrivate: boolean): Promise<void> {
  const refusal = await checkOutboundTarget(url, allowPrivate);
  if (!refusal) return;
  switch (refusal.reason) {
    case 'invalid_url':
      throw new WebhookTargetError('notify.webhookUrl must be an absolute http(s) URL');
    case 'protocol':
      throw new WebhookTargetError('notify.webhookUrl must use http or https');
    case 'credentials':
      throw new WebhookTargetError('notify.webhookUrl must not carry credentials');
    case 'unresolvable':
      throw new WebhookTargetError(`notify.webhookUrl host ${refusal.host} does not resolve`);
    case 'private':
      throw new WebhookTargetError(
        `notify.webhookUrl points to a private or loopback address (${refusal.host}); set WEBHOOK_ALLOW_PRIVATE=true to allow it`,
      );
  }
}
