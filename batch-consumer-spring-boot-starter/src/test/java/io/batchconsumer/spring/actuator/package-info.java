/**
 * The Actuator support over HTTP: a real application with Spring MVC, Actuator and the JDBC
 * transport on an H2 file database.
 */
package io.batchconsumer.spring.actuator;
