/* yobx-export: placeholder main until the CLI lands. */
#include <stdio.h>
int main(void) { puts("yobx-export"); return 0; }
