package dev.baton.testservers;

/** A child JVM for {@link JvmProcessTest}: prints its arguments and an environment variable, then exits. */
public final class EchoMain {
    private EchoMain() {}

    public static void main(String[] args) {
        for (String arg : args) {
            System.out.println("arg:" + arg);
        }
        System.out.println("env:" + System.getenv("BATON_ECHO"));
        System.err.println("to stderr");
        System.exit(args.length);
    }
}
