const x = 1;
