import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class NoopInput {
  @IsInt()
  @Min(1)
  @Max(100_000)
  steps!: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60_000)
  stepMs?: number;
}
