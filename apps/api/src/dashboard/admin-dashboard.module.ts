import { DynamicModule, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { urlencoded } from 'express';
import { DashboardModule } from '@vigil/dashboard';
import { basicAuth } from '../admin-auth';
import { DashboardLiveController } from './dashboard-live.controller';
import { DashboardController } from './dashboard.controller';
import { ScheduleDashboardController } from './schedule-dashboard.controller';

/** Form bodies of the dashboard's buttons are tiny: a CSRF token. */
const FORM_LIMIT = '4kb';
const ADMIN_PASSWORD = Symbol('ADMIN_PASSWORD');

/**
 * The task dashboard at /admin/tasks (docs/operations.md, "The task dashboard"): basic auth on
 * every route, form bodies parsed only here (the API itself takes JSON only).
 */
@Module({})
export class AdminDashboardModule implements NestModule {
  constructor(@Inject(ADMIN_PASSWORD) private readonly password: string) {}

  static forRoot(password: string, control: DynamicModule, schedules?: DynamicModule): DynamicModule {
    return {
      module: AdminDashboardModule,
      imports: [DashboardModule, control, ...(schedules ? [schedules] : [])],
      providers: [{ provide: ADMIN_PASSWORD, useValue: password }],
      // The live and schedule controllers first: `live` and `schedules` must not be read as task ids.
      controllers: [
        DashboardLiveController,
        ...(schedules ? [ScheduleDashboardController] : []),
        DashboardController,
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(basicAuth(this.password), urlencoded({ extended: false, limit: FORM_LIMIT }))
      .forRoutes(
        { path: 'admin/tasks', method: RequestMethod.ALL },
        { path: 'admin/tasks/*path', method: RequestMethod.ALL },
      );
  }
}
