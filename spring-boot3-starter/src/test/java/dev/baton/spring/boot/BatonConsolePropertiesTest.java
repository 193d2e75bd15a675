package dev.baton.spring.boot;

/** The console's settings through the Boot 3.5 starter, in Tomcat. */
class BatonConsolePropertiesTest extends AbstractBatonConsolePropertiesTest {}
