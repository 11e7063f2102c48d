/*
 * rt-app workloads: the `rtapp` console command (kernel/apps/rtapp.c), fed by
 * tools/rtapp, which translates an rt-app JSON file into `rtapp add ...`
 * commands and one `rtapp run <ms>`. The command format is described at the
 * top of kernel/apps/rtapp.c.
 */
#ifndef KERNEL_RTAPP_H
#define KERNEL_RTAPP_H


#endif
