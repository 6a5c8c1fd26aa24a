import { Type } from 'class-transformer';
import * as validators from 'class-validator';
import { countRules, exactRules, flagRules, noArgs } from './exit-criteria/check-rules';
import { defineKind } from './define-kind';
import { defineTool } from './define-tool';
import { CheckUnavailableError, defineCheck, ToolArgumentError } from './task-kind';

/**
 * What a code kind's module is handed when it exports `kinds` as a function (docs/kinds.md,
 * "Code kinds"): the helpers a kind is built with, from the running Vigil itself, so a plain
 * CommonJS module needs no build step and no path into Vigil's `dist/`.
 */
export const KIND_KIT = {
  defineKind,
  defineTool,
  defineCheck,
  countRules,
  flagRules,
  exactRules,
  noArgs,
  ToolArgumentError,
  CheckUnavailableError,
  /** class-validator's decorators, for `inputClass` (apply them as functions in plain JavaScript). */
  validators,
  /** class-transformer's `Type`, for nested objects and arrays of them in `inputClass`. */
  Type,
} as const;

export type KindKit = typeof KIND_KIT;
