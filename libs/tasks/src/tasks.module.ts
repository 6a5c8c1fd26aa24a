import { Module } from '@nestjs/common';
import { ControlSignals } from './control-signals';
import { TaskRepository } from './task.repository';

@Module({ providers: [TaskRepository, ControlSignals], exports: [TaskRepository, ControlSignals] })
export class TasksModule {}
