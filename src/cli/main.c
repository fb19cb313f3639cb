#include <stdio.h>
#include "fricl/fricl.h"
int main(void) { printf("%s\n", fricl_version_string()); return 0; }
