import { ApiProperty } from '@nestjs/swagger';
import { API_ROLES, ApiRole } from '../options/api-role';

/** What the API key in use may do (`GET /access`). */
export class AccessDto {
  @ApiProperty({ enum: API_ROLES, description: 'The role of the key in use; `admin` when the API runs without keys.' })
  role!: ApiRole;

  @ApiProperty({ description: 'Whether the API checks keys at all (false: development mode, everything is open).' })
  keysRequired!: boolean;
}
