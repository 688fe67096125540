package iossim_test

import (
	"fmt"
	"net"

	ios "github.com/danielpaulus/go-ios/ios"

	"github.com/corral-farm/corral/nodes/ios/iossim"
)

// A host with one phone, listed by go-ios over an explicit connection. Code that finds
// usbmuxd by itself gets there with USBMUXD_SOCKET_ADDRESS=host.Addr().
func Example() {
	host, err := iossim.Start("127.0.0.1:0", nil)
	if err != nil {
		panic(err)
	}
	defer host.Close()
	phone, err := iossim.NewDevice(iossim.Config{UDID: "00008030-001A2B3C4D5E6F70", Name: "Test iPhone"})
	if err != nil {
		panic(err)
	}
	host.Attach(phone)

	c, err := net.Dial("tcp", host.Addr())
	if err != nil {
		panic(err)
	}
	mux := ios.NewUsbMuxConnection(ios.NewDeviceConnectionWithConn(c))
	defer mux.Close()
	list, err := mux.ListDevices()
	if err != nil {
		panic(err)
	}
	for _, d := range list.DeviceList {
		fmt.Println(d.DeviceID, d.Properties.ConnectionType, d.Properties.SerialNumber)
	}
	// Output: 1 USB 00008030-001A2B3C4D5E6F70
}
