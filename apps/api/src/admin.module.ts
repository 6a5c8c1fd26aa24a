import { createHash, timingSafeEqual } from 'node:crypto';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { VigilConfig } from '@vigil/config';
import { RedisKeys } from '@vigil/redis';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

function basicAuth(password: string) {
  const expected = digest(`admin:${password}`);
  return (req: Request, res: Response, next: NextFunction): void => {
    const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const presented = match ? Buffer.from(match[1], 'base64').toString() : '';
    if (timingSafeEqual(digest(presented), expected)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="vigil admin"');
    res.status(401).json({ statusCode: 401, error: 'Unauthorized', message: 'admin credentials required' });
  };
}

/** Bull Board at /admin/queues, behind basic auth (user `admin`, password ADMIN_PASSWORD). */
@Module({})
export class AdminModule {
  static forRoot(config: VigilConfig): DynamicModule {
    if (!config.adminPassword) return { module: AdminModule };
    const keys = new RedisKeys(config.keyPrefix, config.shards);
    return {
      module: AdminModule,
      imports: [
        BullBoardModule.forRoot({
          route: '/admin/queues',
          adapter: ExpressAdapter,
          middleware: basicAuth(config.adminPassword),
        }),
        ...keys
          .allShards()
          .map((shard) =>
            BullBoardModule.forFeature({ name: keys.turnQueueName(shard), adapter: BullMQAdapter }),
          ),
        // The notifier's webhook queues, registered here only so the board shows (and can retry) them.
        BullModule.registerQueue(
          ...keys.allShards().map((shard) => ({ name: keys.webhookQueueName(shard) })),
        ),
        ...keys
          .allShards()
          .map((shard) =>
            BullBoardModule.forFeature({ name: keys.webhookQueueName(shard), adapter: BullMQAdapter }),
          ),
      ],
    };
  }
}
