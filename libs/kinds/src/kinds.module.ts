import { Module } from '@nestjs/common';
import { KindRegistry } from './kind-registry';

@Module({ providers: [KindRegistry], exports: [KindRegistry] })
export class KindsModule {}
