module sub
