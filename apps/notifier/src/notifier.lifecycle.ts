import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Notifier } from '@vigil/notify';

/**
 * Starts the notifier once the app is up and stops it before Nest closes Redis: the tick in flight,
 * the consumer and the webhook deliveries in progress finish first (SIGTERM goes through here).
 */
@Injectable()
export class NotifierLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(Notifier) private readonly notifier: Notifier) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.notifier.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.notifier.stop();
  }
}
