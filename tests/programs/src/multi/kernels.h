#pragma once
int run_axpb(int *host, int n, int a, int b);
