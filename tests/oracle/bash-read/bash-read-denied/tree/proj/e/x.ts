const y = 1;
