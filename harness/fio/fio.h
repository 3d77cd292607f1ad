/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fio-jobs/'s commands (fio_import.c): longpin fio-memtype, fio-result
 * and fio-import, each with its own words, argv[0] the command.
 */
#ifndef LONGPIN_FIO_H
#define LONGPIN_FIO_H

int lp_fio_memtype_main(int argc, char **argv);
int lp_fio_result_main(int argc, char **argv);
int lp_fio_import_main(int argc, char **argv);

#endif
