// The one error the CLI prints as is: a message naming the problem, and the exit code to use.

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
