import { router } from '../trpc.ts';
import { addUser } from './add-user.ts';
import { deleteUser } from './delete-user.ts';
import { getUser } from './get-user.ts';
import { listUsers } from './list-users.ts';
import { updateUser } from './update-user.ts';

export const usersRouter = router({ listUsers, getUser, addUser, updateUser, deleteUser });
