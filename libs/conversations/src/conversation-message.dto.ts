import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { CreateTaskDto } from '@vigil/control';

export class ConversationMessageDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 10_000,
    description: 'what the person wrote',
    example: 'Research our five main competitors and write a report on their pricing.',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(10_000)
  text!: string;

  @ApiPropertyOptional({
    maxLength: 200,
    pattern: '^[\\x21-\\x7e]+$',
    description:
      "the client's id of this message: sent again, it is answered with the same reply and processed once",
    example: 'msg-2026-12-01-0001',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^[\x21-\x7e]+$/, { message: 'messageId must be printable ASCII without spaces' })
  messageId?: string;

  /** Many-step work spelled out as a task, instead of from the tenant's conversation defaults. */
  @ApiPropertyOptional({
    type: () => CreateTaskDto,
    description:
      'run exactly this task (a POST /v1/tasks body) as the mission, instead of the tenant defaults',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => CreateTaskDto)
  task?: CreateTaskDto;
}
