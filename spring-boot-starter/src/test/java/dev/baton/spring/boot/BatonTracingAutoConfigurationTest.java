package dev.baton.spring.boot;

/** The shared tracing tests on Spring Boot 4. */
class BatonTracingAutoConfigurationTest extends AbstractBatonTracingAutoConfigurationTest {}
