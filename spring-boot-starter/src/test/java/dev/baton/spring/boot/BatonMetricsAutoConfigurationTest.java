package dev.baton.spring.boot;

/** The shared metrics tests on Spring Boot 4. */
class BatonMetricsAutoConfigurationTest extends AbstractBatonMetricsAutoConfigurationTest {}
