package embedded

// LeafErrorReports is leafErrorReports, for the tests of what a site logs during a cut.
var LeafErrorReports = leafErrorReports
