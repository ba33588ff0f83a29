[inputs: ["{mix,.formatter}.exs", "lib/**/*.ex"]]
